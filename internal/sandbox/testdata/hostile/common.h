/* Helpers shared by the hostile test bots. A bot is run as
 * `bot A <round folder>`; it reads its targets from files in that folder and
 * appends "PWNED <what>" to loot.txt when an attack works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *round_dir;

static void round_path(char *buf, size_t n, const char *name) {
	snprintf(buf, n, "%s/%s", round_dir, name);
}

/* Reads a target the test left in the round folder or, in a real match
 * (where the engine makes the round folder), in the bot's own folder. */
static int read_round(const char *name, char *buf, size_t n) {
	char p[4096];
	round_path(p, sizeof p, name);
	FILE *f = fopen(p, "r");
	if (!f) f = fopen(name, "r");
	if (!f) return -1;
	size_t k = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[k] = 0;
	while (k > 0 && (buf[k - 1] == '\n' || buf[k - 1] == '\r')) buf[--k] = 0;
	return 0;
}

static void loot(const char *what) {
	char p[4096];
	round_path(p, sizeof p, "loot.txt");
	FILE *f = fopen(p, "a");
	if (!f) return;
	fprintf(f, "%s\n", what);
	fclose(f);
}

static void command(void) {
	char p[4096];
	round_path(p, sizeof p, "command.txt");
	FILE *f = fopen(p, "w");
	if (!f) return;
	fputs("1,0,0", f);
	fclose(f);
}

static void init_bot(int argc, char **argv) {
	if (argc < 3) exit(2);
	round_dir = argv[2];
}
