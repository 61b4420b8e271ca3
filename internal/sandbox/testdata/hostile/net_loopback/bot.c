#include "common.h"
#include <arpa/inet.h>
#include <sys/socket.h>
int main(int argc, char **argv) {
	init_bot(argc, argv);
	char port[64];
	if (read_round("port.txt", port, sizeof port) != 0) return 1;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(port))};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
		write(s, "hello", 5);
		loot("PWNED connected to the host loopback listener");
	}
	command();
	return 0;
}
