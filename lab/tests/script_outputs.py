"""lab/padtune_lab/output_file.py, the lab's side of the output rule: a link's target is replaced and the
link kept, a device is written in place, a folder is refused, a file keeps its mode, a failed
replace leaves the old file and no temporary file, and a name of NAME_MAX bytes is written.
Usage: script_outputs.py LAB_DIR SCRATCH_DIR"""
import os
import shutil
import stat
import sys

sys.path.insert(0, sys.argv[1])
from padtune_lab import output_file  # noqa: E402

d = sys.argv[2]
shutil.rmtree(d, ignore_errors=True)
os.makedirs(os.path.join(d, "real"))
link = os.path.join(d, "link.md")
os.symlink(os.path.join("real", "peers.md"), link)
output_file.write_output(link, "through the link")
assert os.path.islink(link), "the link was replaced"
assert open(os.path.join(d, "real", "peers.md")).read() == "through the link"

output_file.write_output("/dev/null", b"x" * 4096)
assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a device"

try:
    output_file.write_output(os.path.join(d, "real"), "x")
    raise AssertionError("a folder was written")
except IsADirectoryError as e:
    assert "is a folder" in str(e), e

table = os.path.join(d, "t.json")
output_file.write_output(table, "old")
os.chmod(table, 0o640)
real_replace = os.replace
os.replace = lambda a, b: (_ for _ in ()).throw(OSError(28, "No space left on device", b))
try:
    output_file.write_output(table, "new")
    raise AssertionError("the failing replace succeeded")
except OSError as e:
    assert e.errno == 28, e
finally:
    os.replace = real_replace
assert open(table).read() == "old", "a failed write changed the old file"
assert sorted(os.listdir(d)) == ["link.md", "real", "t.json"], os.listdir(d)
output_file.write_output(table, "new")
assert stat.S_IMODE(os.stat(table).st_mode) == 0o640 and open(table).read() == "new"
longest = os.path.join(d, "real", "t" * os.pathconf(d, "PC_NAME_MAX"))  # its temporary name fits too
output_file.write_output(longest, "longest")
assert open(longest).read() == "longest" and len(os.listdir(os.path.join(d, "real"))) == 2, os.listdir(os.path.join(d, "real"))
print("lab/padtune_lab/output_file.py: links followed, devices in place, folders refused, modes kept, failures clean")
