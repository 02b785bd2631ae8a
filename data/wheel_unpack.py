# kiln (data/wheel_unpack.py): a built or kept wheel checked, then its shared libraries extracted for
# kiln to verify, run as `python -I -S -c <this> WHEEL DEST` (src/drive/wheel_build.cpp) before the
# wheel is kept in the cache or installed; DEST is emptied first. Exit 1, naming the member, when a
# member is not what RECORD says (size, sha256), RECORD lists a member the wheel lacks, or a shared
# library is no ELF file (a 0-byte _C.so from two builds sharing setuptools' build folder: issue 34).
import base64, csv, hashlib, io, shutil, sys, zipfile

def fail(why):
    sys.stderr.write("kiln: wheel check: %s: %s\n" % (sys.argv[1], why))
    sys.exit(1)

def digest(z, name):
    h, size = hashlib.sha256(), 0
    with z.open(name) as f:  # zipfile checks each member's CRC-32 as it reads
        for piece in iter(lambda: f.read(1 << 20), b""):
            h.update(piece)
            size += len(piece)
    return "sha256=" + base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode(), size

def main():
    shutil.rmtree(sys.argv[2], ignore_errors=True)
    try:
        z = zipfile.ZipFile(sys.argv[1])
    except (OSError, zipfile.BadZipFile) as e:
        fail("not a readable zip (%s)" % e)
    with z:
        names = z.namelist()
        records = [n for n in names if n.endswith(".dist-info/RECORD") and n.count("/") == 1]
        if len(records) != 1:
            fail("%d .dist-info/RECORD files, expected one" % len(records))
        text = z.read(records[0]).decode("utf-8", "replace")
        listed = {}
        for row in csv.reader(io.StringIO(text)):
            if row:
                listed[row[0]] = row[1:3] if len(row) >= 3 else ["", ""]
        for name in names:
            if name.endswith("/") or name == records[0] or name.endswith((".dist-info/RECORD.jws", ".dist-info/RECORD.p7s")):
                continue
            if name not in listed:
                fail("%s is not in RECORD" % name)
            want_hash, want_size = listed.pop(name)
            got_hash, got_size = digest(z, name)
            if want_hash and want_hash != got_hash:
                fail("%s: its sha256 is not RECORD's" % name)
            if want_size and want_size != str(got_size):
                fail("%s: %d bytes, RECORD says %s" % (name, got_size, want_size))
            if ".so" in name.rsplit("/", 1)[-1]:
                with z.open(name) as f:
                    head = f.read(64)
                if len(head) < 64 or head[:4] != b"\x7fELF":
                    fail("%s: %d bytes and not an ELF shared library: it would not load" % (name, got_size))
        listed.pop(records[0], None)
        missing = [n for n in listed if not n.endswith("/")]
        if missing:
            fail("RECORD lists %s, which the wheel lacks" % missing[0])
        for name in names:
            if ".so" in name.rsplit("/", 1)[-1]:
                z.extract(name, sys.argv[2])

main()
