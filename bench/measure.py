"""Runs a command with its output in build.log; prints "wall_s max_rss_mib exit_code".

max_rss is that of the largest single child process (getrusage RUSAGE_CHILDREN), the same measure
`kiln build` reports as peak RSS.
"""
import resource
import subprocess
import sys
import time

start = time.time()
with open("build.log", "w") as log:
    rc = subprocess.call(sys.argv[1:], stdout=log, stderr=subprocess.STDOUT)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.time() - start:.1f} {usage.ru_maxrss // 1024} {rc}")
