"""Every lecture's first line, ``import _course``: the course importable, then its shell.

A lecture run as ``python3 lectures/NN_name.py`` (from any folder) finds this module
because Python puts the script's folder first on ``sys.path``; sphinx-gallery runs a
lecture from this folder and adds it to ``sys.path``. Either way this puts the
lecture's own checkout (the folder above) first on ``sys.path``, so ``common`` is this
checkout's, and ``boot.start()`` installs one-line errors, a quiet Ctrl-C and quiet
closed pipes before the lecture imports numpy (a script run only; elsewhere it does
nothing).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
from common.shell import boot

boot.start()
