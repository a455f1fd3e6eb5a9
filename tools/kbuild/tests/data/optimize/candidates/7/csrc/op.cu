// VERDICT rule_broken
__global__ void op() {}
