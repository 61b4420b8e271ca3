#include <fstream>
#include <string>
int main(int argc, char **argv) {
	if (argc < 3) return 2;
	std::ofstream(std::string(argv[2]) + "/command.txt") << "1,0,0";
	return 0;
}
