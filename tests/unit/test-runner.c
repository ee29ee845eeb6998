#include "runner-world.h"
int main(void) { return 0; }
