"""datamodel-code-generator behind one door: the IR's model document -> ``models.py``, one unit at a time."""
