package starterbot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Starter bot for Entelect Challenge 2017 Battleships (Java, JDK only).
 *
 * <p>The engine runs {@code java -jar target/bot.jar <player key> <round folder>}
 * once per round. The bot reads state.json from the round folder and writes
 * place.txt (phase 1) or command.txt (phase 2) there. Replace chooseShot with
 * your own strategy.
 */
public final class Bot {
    private static final String[] SHIPS = {"Battleship", "Carrier", "Cruiser", "Destroyer", "Submarine"};
    private static final int[] LENGTHS = {4, 5, 3, 2, 3};
    private static final String[] DIRECTIONS = {"North", "East", "South", "West"};
    private static final int[][] STEPS = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};

    private Bot() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java -jar bot.jar <player key> <round folder>");
            System.exit(2);
        }
        Path folder = Paths.get(args[1]);
        String raw = new String(Files.readAllBytes(folder.resolve("state.json")), StandardCharsets.UTF_8);
        @SuppressWarnings("unchecked")
        Map<String, Object> state = (Map<String, Object>) Json.parse(raw);
        // Seeded from the state, so the same match plays the same way again.
        Random rng = new Random((args[0] + raw).hashCode());
        int phase = ((Double) state.get("Phase")).intValue();
        int n = ((Double) state.get("MapDimension")).intValue();
        if (phase == 1) {
            write(folder.resolve("place.txt"), placeShips(n, rng));
            return;
        }
        write(folder.resolve("command.txt"), chooseShot(state, rng));
    }

    private static void write(Path file, String text) throws IOException {
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Places every ship at a random legal start and direction. */
    static String placeShips(int n, Random rng) {
        Set<Integer> taken = new HashSet<>();
        StringBuilder out = new StringBuilder();
        for (int s = 0; s < SHIPS.length; s++) {
            while (true) {
                int x = rng.nextInt(n);
                int y = rng.nextInt(n);
                int d = rng.nextInt(DIRECTIONS.length);
                List<Integer> cells = new ArrayList<>();
                for (int i = 0; i < LENGTHS[s]; i++) {
                    int cx = x + i * STEPS[d][0];
                    int cy = y + i * STEPS[d][1];
                    if (cx < 0 || cy < 0 || cx >= n || cy >= n || taken.contains(cx * n + cy)) {
                        break;
                    }
                    cells.add(cx * n + cy);
                }
                if (cells.size() == LENGTHS[s]) {
                    taken.addAll(cells);
                    out.append(SHIPS[s]).append(' ').append(x).append(' ').append(y).append(' ')
                            .append(DIRECTIONS[d]).append('\n');
                    break;
                }
            }
        }
        return out.toString();
    }

    /** Fires a single shot (code 1) at a random cell not shot before. */
    @SuppressWarnings("unchecked")
    static String chooseShot(Map<String, Object> state, Random rng) {
        Map<String, Object> opponent = (Map<String, Object>) state.get("OpponentMap");
        List<Map<String, Object>> unknown = new ArrayList<>();
        for (Object o : (List<Object>) opponent.get("Cells")) {
            Map<String, Object> cell = (Map<String, Object>) o;
            if (!(Boolean) cell.get("Damaged") && !(Boolean) cell.get("Missed")) {
                unknown.add(cell);
            }
        }
        if (unknown.isEmpty()) {
            return "0,0,0\n";
        }
        Map<String, Object> cell = unknown.get(rng.nextInt(unknown.size()));
        return "1," + ((Double) cell.get("X")).intValue() + "," + ((Double) cell.get("Y")).intValue() + "\n";
    }
}
