// VERDICT ok 5
__global__ void op() {}
