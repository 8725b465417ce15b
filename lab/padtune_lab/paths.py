"""Where the source tree is: lab/padtune_lab/ lies two folders below it."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB = os.path.join(ROOT, "lab")


def run_module(module):
    """(argv prefix, environment) that run lab module MODULE (padtune_lab.x) in a child Python."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (LAB, env.get("PYTHONPATH")) if p)
    return [sys.executable, "-m", module], env
