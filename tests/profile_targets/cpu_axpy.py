"""A CPU function for `roofline profile`: y = 2 x + y in numpy, 2**18 float32 elements."""
import numpy as np

N = 1 << 18
N_FLOPS = "2*2**18"
N_BYTES = "12*2**18"  # read x and y, write the result


def setup():
    rng = np.random.default_rng(0)
    return rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32), np.empty(N, np.float32)


def axpy(x, y, out):
    np.multiply(x, 2.0, out=out)
    np.add(out, y, out=out)
    return out


def raises(x, y, out):
    raise SystemExit("the student's code called exit()")


def not_a_function():
    pass


not_a_function = 3
