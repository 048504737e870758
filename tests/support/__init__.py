"""What the tests share and run, not tests themselves: the CUDA-simulator runner (`simulated`)
and the scripts it runs (`sim_*`), and the notebook tool (`notebook_tools`: check, strip, refresh).
"""
