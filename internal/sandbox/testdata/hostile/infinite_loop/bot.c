#include "common.h"
int main(int argc, char **argv) {
	init_bot(argc, argv);
	volatile unsigned long n = 0;
	for (;;) n++;
}
