"""The notebooks' narration: the numbers and words a notebook prints, computed here.

- :mod:`.analogy`: the kitchen analogy (notebook 00);
- :mod:`.chart_reading`: reading a roofline chart;
- :mod:`.pitfalls`: the pitfalls and their recorded readings (notebook 06);
- :mod:`.triage`: the triage tree for a kernel off its roof;
- :mod:`.use_cases`: where the roofline answers a real question;
- :mod:`.published`: figures measured elsewhere and published, with their sources;
- :mod:`.step_roofs`: the measured roofs a training step meets;
- :mod:`.ceilings`: notebook 03's tables and its worked placement;
- :mod:`.sweep_lesson`: the tables notebook 04 prints beside its prose;
- :mod:`.pitfalls_lesson`: notebook 06's runs, each said once, and its printouts.

The package offers no names of its own: import the module.
"""

__all__ = []
