#include "common.h"
#include <arpa/inet.h>
#include <sys/socket.h>
int main(int argc, char **argv) {
	init_bot(argc, argv);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(5432)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) loot("PWNED connected to postgres");
	if (access("/var/run/postgresql/.s.PGSQL.5432", F_OK) == 0) loot("PWNED sees the postgres socket");
	command();
	return 0;
}
