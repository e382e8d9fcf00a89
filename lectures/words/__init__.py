"""The words of each lecture, one module beside its script: ``words/NAME.py`` speaks for
``NN_NAME.py``. A lecture computes records (small dataclasses, one per section) with the
formulas of ``common/`` and hands them here; a words module turns them into tables,
sentences and observations and computes nothing a formula already computes. Every
comparison a sentence states is decided by ``common.present.claims``. Sphinx-gallery
runs only ``NN_*.py`` files, so nothing here is shown as a lecture.
"""
