// A shared library named libcuda.so that is no driver: what a CUDA LibTorch
// maps at start on a machine with one (seen on the H200: the fork rules then
// refused every run). tests/lib/fork_rules_test.cpp loads it to show that the
// library alone is no reason to refuse a fork.
extern "C" int casebook_fake_cuda_driver_version() { return 0; }
