python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD/.site:$PWD; export PATH=$PATH:/usr/local/cuda/bin
timeout 300 python3 -m pytest -q -m gpu tests/test_measure_gpu.py -p no:cacheprovider 2>&1 | tail -25
( cd .peers/gpu-benches/gpu-l2-cache && sed -i 's/-arch=sm_70/-arch=sm_90/' Makefile && make -s >/dev/null 2>&1 ); 
timeout 300 python3 benchmarks/l2_vs_peer.py $OUT/l2 .peers/gpu-benches/gpu-l2-cache/cuda-l2-cache 2>&1 | tail -8
( cd $OUT && tar czf smoke.tgz --remove-files l2 )
