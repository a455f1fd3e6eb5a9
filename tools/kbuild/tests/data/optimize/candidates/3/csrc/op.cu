// VERDICT crashed
__global__ void op() {}
