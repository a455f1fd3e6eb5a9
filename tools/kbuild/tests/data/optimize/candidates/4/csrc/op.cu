// VERDICT timed_out
__global__ void op() {}
