"""Run each fresh-process script N times; medians of its RESULT fields and of process wall time."""
import subprocess, sys, time, statistics, os, re
PY = '/work/main/.venv/bin/python'
env = dict(os.environ, NUMBA_CACHE_DIR='/tmp/aot/nbcache', PYTHONPATH='/tmp/aot')
N = int(sys.argv[1]); scripts = sys.argv[2:]
for s in scripts:
    subprocess.run([PY, s], env=env, capture_output=True, cwd='/tmp/aot')  # warm cache / page cache
    fields, walls = {}, []
    for _ in range(N):
        t = time.perf_counter()
        out = subprocess.run([PY, s], env=env, capture_output=True, text=True, cwd='/tmp/aot')
        walls.append(time.perf_counter() - t)
        line = [l for l in out.stdout.splitlines() if l.startswith('RESULT')]
        if not line:
            print(s, 'FAILED', out.stderr[-500:]); break
        for k, v in re.findall(r'(\w+)=([\d.]+)', line[0]):
            fields.setdefault(k, []).append(float(v))
    print(f"{s:24s} " + " ".join(f"{k}={statistics.median(v):.4f}" for k, v in fields.items())
          + f" process_wall={statistics.median(walls):.3f} (n={N}, wall range {min(walls):.3f}-{max(walls):.3f})")
