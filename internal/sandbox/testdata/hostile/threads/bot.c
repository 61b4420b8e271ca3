#include "common.h"
#include <pthread.h>
static void *idle(void *a) { (void)a; for (;;) pause(); return NULL; }
int main(int argc, char **argv) {
	init_bot(argc, argv);
	int n = 0;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 65536);
	for (; n < 10000; n++) {
		pthread_t t;
		if (pthread_create(&t, &at, idle, NULL) != 0) break;
	}
	if (n >= 10000) loot("PWNED started 10000 threads");
	command();
	return 0;
}
