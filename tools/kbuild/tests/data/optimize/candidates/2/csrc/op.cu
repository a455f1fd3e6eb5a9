// VERDICT test_failed
__global__ void op() {}
