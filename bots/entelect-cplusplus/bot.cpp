// Starter bot for Entelect Challenge 2017 Battleships (C++17, standard library only).
//
// The engine runs `./bot <player key> <round folder>` once per round. The bot
// reads state.json from the round folder and writes place.txt (phase 1) or
// command.txt (phase 2) there. Replace chooseShot with your own strategy.
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "json.hpp"

namespace {

struct ShipKind {
    const char* name;
    int length;
};
const ShipKind kShips[] = {{"Battleship", 4}, {"Carrier", 5}, {"Cruiser", 3}, {"Destroyer", 2}, {"Submarine", 3}};
const char* kDirections[] = {"North", "East", "South", "West"};
const int kSteps[][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};

// placeShips places every ship at a random legal start and direction.
std::string placeShips(int n, std::mt19937& rng) {
    std::set<std::pair<int, int>> taken;
    std::ostringstream out;
    std::uniform_int_distribution<int> coord(0, n - 1), dir(0, 3);
    for (const auto& ship : kShips) {
        for (;;) {
            int x = coord(rng), y = coord(rng), d = dir(rng);
            std::vector<std::pair<int, int>> cells;
            for (int i = 0; i < ship.length; i++) {
                int cx = x + i * kSteps[d][0], cy = y + i * kSteps[d][1];
                if (cx < 0 || cy < 0 || cx >= n || cy >= n || taken.count({cx, cy})) break;
                cells.push_back({cx, cy});
            }
            if (static_cast<int>(cells.size()) == ship.length) {
                taken.insert(cells.begin(), cells.end());
                out << ship.name << ' ' << x << ' ' << y << ' ' << kDirections[d] << '\n';
                break;
            }
        }
    }
    return out.str();
}

// chooseShot fires a single shot (code 1) at a random cell not shot before.
std::string chooseShot(const json::Value& state, std::mt19937& rng) {
    std::vector<const json::Value*> unknown;
    for (const auto& cell : state["OpponentMap"]["Cells"].items) {
        if (!cell["Damaged"].b && !cell["Missed"].b) unknown.push_back(&cell);
    }
    if (unknown.empty()) return "0,0,0\n";
    std::uniform_int_distribution<size_t> pick(0, unknown.size() - 1);
    const json::Value& cell = *unknown[pick(rng)];
    return "1," + std::to_string(cell["X"].asInt()) + "," + std::to_string(cell["Y"].asInt()) + "\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: bot <player key> <round folder>\n";
        return 2;
    }
    std::string key = argv[1], folder = argv[2];
    std::ifstream in(folder + "/state.json", std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string raw = buf.str();
    try {
        json::Value state = json::parse(raw);
        // Seeded from the state, so the same match plays the same way again.
        std::mt19937 rng(static_cast<unsigned>(std::hash<std::string>{}(key + raw)));
        if (state["Phase"].asInt() == 1) {
            std::ofstream(folder + "/place.txt") << placeShips(state["MapDimension"].asInt(), rng);
        } else {
            std::ofstream(folder + "/command.txt") << chooseShot(state, rng);
        }
    } catch (const std::exception& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
