"""Files on disk: the one read and write path, result formats, schemas, validation, and
where results live.
"""
