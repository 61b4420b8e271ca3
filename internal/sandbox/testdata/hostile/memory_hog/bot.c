#include "common.h"
int main(int argc, char **argv) {
	init_bot(argc, argv);
	size_t total = 0;
	for (int i = 0; i < 10240; i++) {
		char *p = malloc(1 << 20);
		if (!p) break;
		memset(p, 1, 1 << 20);
		total += 1 << 20;
	}
	if (total >= (size_t)10 << 30) loot("PWNED allocated 10 GB");
	command();
	return 0;
}
