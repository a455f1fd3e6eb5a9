// VERDICT compile_error
__global__ void op() {}
