python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD/.site:$PWD; export PATH=$PATH:/usr/local/cuda/bin
( cd .peers/gpu-benches/gpu-l2-cache && sed -i 's/-arch=sm_70/-arch=sm_90/' Makefile && make -s >/dev/null 2>&1 );
timeout 300 python3 benchmarks/l2_vs_peer.py $OUT/l2 .peers/gpu-benches/gpu-l2-cache/cuda-l2-cache 2>&1 | tail -8
python3 - <<'PY'
import json, os
d = json.load(open(os.environ["OUT"] + "/l2/l2_vs_peer.json"))
for b in ("numba", "cupy"):
    for r in d[b]["rows"]:
        print(b, round(r["working_set_bytes"] / 1e6, 1), r["launch"], round(r["slices_gbps"]), round(r["served_fraction"], 3), round(r["seconds"] * 1e6))
PY
python3 -c "
from rooflinelib.measure import kernels_numba as kn
k=kn.l2_slab_kernel().compile(); o=next(iter(k.overloads.values())); print('numba regs', o.regs_per_thread)"
( cd $OUT && tar czf l2.tgz --remove-files l2 )
