using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;

namespace StarterBot
{
    // Starter bot for Entelect Challenge 2017 Battleships. The engine runs
    // "mono StarterBot.exe <player key> <round folder>" once per round; the bot
    // reads state.json from the round folder and writes place.txt (phase 1) or
    // command.txt (phase 2) there. Replace ChooseShot with your own strategy.
    public static class Program
    {
        static readonly KeyValuePair<string, int>[] Ships =
        {
            new KeyValuePair<string, int>("Battleship", 4),
            new KeyValuePair<string, int>("Carrier", 5),
            new KeyValuePair<string, int>("Cruiser", 3),
            new KeyValuePair<string, int>("Destroyer", 2),
            new KeyValuePair<string, int>("Submarine", 3),
        };

        // Directions in name order, with the step each takes: North is +y.
        static readonly string[] Directions = { "East", "North", "South", "West" };
        static readonly int[,] Steps = { { 1, 0 }, { 0, 1 }, { 0, -1 }, { -1, 0 } };

        public static int Main(string[] args)
        {
            if (args.Length < 2)
            {
                Console.Error.WriteLine("usage: StarterBot.exe <player key> <round folder>");
                return 2;
            }
            string key = args[0], folder = args[1];
            byte[] raw = File.ReadAllBytes(Path.Combine(folder, "state.json"));
            GameState state = GameState.Parse(raw);
            // Seeded from the state, so the same match plays the same way again.
            var rng = new Random(Seed(key, raw));
            if (state.Phase == 1)
            {
                File.WriteAllText(Path.Combine(folder, "place.txt"), PlaceShips(state.MapDimension, rng));
                return 0;
            }
            File.WriteAllText(Path.Combine(folder, "command.txt"), ChooseShot(state, rng) + "\n");
            return 0;
        }

        // PlaceShips puts every ship at a random legal start and direction.
        static string PlaceShips(int n, Random rng)
        {
            var taken = new HashSet<int>();
            var lines = new StringBuilder();
            foreach (var ship in Ships)
            {
                while (true)
                {
                    int x = rng.Next(n), y = rng.Next(n), d = rng.Next(Directions.Length);
                    var cells = Enumerable.Range(0, ship.Value)
                        .Select(i => new { X = x + i * Steps[d, 0], Y = y + i * Steps[d, 1] })
                        .ToList();
                    if (cells.All(c => c.X >= 0 && c.X < n && c.Y >= 0 && c.Y < n && !taken.Contains(c.X * n + c.Y)))
                    {
                        foreach (var c in cells)
                        {
                            taken.Add(c.X * n + c.Y);
                        }
                        lines.AppendFormat("{0} {1} {2} {3}\n", ship.Key, x, y, Directions[d]);
                        break;
                    }
                }
            }
            return lines.ToString();
        }

        // ChooseShot fires a single shot (code 1) at a random cell not shot before.
        static string ChooseShot(GameState state, Random rng)
        {
            var unknown = state.OpponentMap.Cells.Where(c => !c.Damaged && !c.Missed).ToList();
            if (unknown.Count == 0)
            {
                return "0,0,0";
            }
            var cell = unknown[rng.Next(unknown.Count)];
            return string.Format("1,{0},{1}", cell.X, cell.Y);
        }

        // Seed is an FNV-1a hash of the key and the state: stable across runs,
        // unlike string.GetHashCode.
        static int Seed(string key, byte[] state)
        {
            unchecked
            {
                uint h = 2166136261;
                foreach (byte b in Encoding.UTF8.GetBytes(key).Concat(state))
                {
                    h = (h ^ b) * 16777619;
                }
                return (int)(h & 0x7fffffff);
            }
        }
    }
}
