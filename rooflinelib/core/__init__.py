"""The roofline model and its vocabulary: ceilings, machines, operators, placement, links.

- :mod:`.model`: ceilings, machines, the roofline and its verdicts;
- :mod:`.machines`: the datasheet machines, with their sources;
- :mod:`.operators`: each operator's FLOPs and bytes (``OpCost``);
- :mod:`.placement`: a kernel placed on a machine's roofs;
- :mod:`.interconnect`: datasheet links and communication patterns' intensities;
- :mod:`.vocabulary`: the one table from a dtype to a ceiling name;
- :mod:`.vendors`: the vendors' words for the same ideas;
- :mod:`.sanity`: the one numeric rule for every number from outside;
- :mod:`.expr`: the arithmetic a user may type for a number (``5*2**24``);
- :mod:`.envvars`: the environment variables the course reads.

Nothing here imports from the rest of the package.  The package offers no names of its own:
import the module.
"""

__all__ = []
