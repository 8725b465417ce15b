"""Every file padtune's scripts write, by the rule of the C++ tool (tuner/store/include/padtune/store/output_file.hpp):
a regular file or a new path is replaced atomically (a temporary file in the same folder, flushed,
renamed; removed on any failure), a symbolic link's target likewise (the link stays), a device or
a FIFO is written in place, and a folder is refused."""
import os
import stat
import tempfile


def write_output(path, data):
    """Writes data (bytes or str) to path by the rule above. Raises OSError naming the path."""
    data = data.encode() if isinstance(data, str) else data
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{path}: is a folder, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(path, "wb") as f:  # a device or a FIFO: in place
            f.write(data)
        return
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    # A prefix of its own, not the target's name: a name that fits NAME_MAX gets a temporary one that fits.
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".padtune.tmp.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
