import sys; sys.argv = ['x', 'jit', 'bench']; exec(open('/tmp/aot/fresh_pycc_real.py').read())
