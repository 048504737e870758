python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD/.site:$PWD; export PATH=$PATH:/usr/local/cuda/bin
timeout 500 python3 benchmarks/record_experiments.py --only chains,launch,algorithm --out $OUT/exp3.json 2>&1 | tail -60
