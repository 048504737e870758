"""Files on disk: the one read and write path, result formats, schemas, validation, and
where results live.

- :mod:`.fileio`: the one read path and the one write path;
- :mod:`.results`: the versioned result format of Labs 1 and 3;
- :mod:`.validation`: one validator for every format, with the JSON schemas in ``schemas/``;
- :mod:`.lab_files`: where results live by default, and results as CSV;
- :mod:`.recorded`: the folder of recorded H200 data shipped with the course.

The package offers no names of its own: import the module.
"""

__all__ = []
