#!/bin/sh
# build objs/runtime.o (numba helperlib) + objs/nrt.o once, then link c_epoch.o into libc_epoch.so
set -e
cd /tmp/aot
NB=/work/main/.venv/lib/python3.11/site-packages/numba
PYI=$(/work/main/.venv/bin/python -c "import sysconfig;print(sysconfig.get_paths()['include'])")
NPI=/work/main/.venv/lib/python3.11/site-packages/numpy/_core/include
LP=$(cd /tmp && /work/main/.venv/bin/python -c "from numba import _helperlib;print(int(getattr(_helperlib,'LAPACK_BUILD_ILP64',0)))")
[ -f objs/runtime.o ] || gcc -O2 -fPIC -c runtime_shim.c -I$NB -I$PYI -I$NPI -DNUMBA_LAPACK_BUILD_ILP64=$LP -o objs/runtime.o
[ -f objs/nrt.o ] || g++ -O2 -fPIC -c $NB/core/runtime/nrt.cpp -I$NB -I$NB/core/runtime -o objs/nrt.o
g++ -shared -fPIC -o libc_epoch.so c_epoch.o objs/runtime.o objs/nrt.o -pthread -lm
