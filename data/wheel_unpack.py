# kiln (data/wheel_unpack.py): the shared libraries of a built wheel, extracted for kiln to verify,
# run as `python -c <this> WHEEL DEST` (src/drive/wheel_build.cpp); DEST is emptied first.
import shutil, sys, zipfile
shutil.rmtree(sys.argv[2], ignore_errors=True)
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if '.so' in n.rsplit('/', 1)[-1]:
            z.extract(n, sys.argv[2])
