// VERDICT ok 20
__global__ void op() {}
