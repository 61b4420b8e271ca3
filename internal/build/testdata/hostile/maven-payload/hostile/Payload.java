package hostile;

import java.io.FileWriter;
import java.io.IOException;
import javax.inject.Named;
import javax.inject.Singleton;
import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.execution.MavenSession;

/**
 * A Maven extension: Maven creates it when it loads the extension, as a
 * build extension (a pom's build/extensions) or a core extension
 * (.mvn/extensions.xml), before any plugin runs.
 */
@Named("hostile")
@Singleton
public class Payload extends AbstractMavenLifecycleParticipant {
    public Payload() {
        mark();
    }

    @Override
    public void afterSessionStart(MavenSession session) {
        mark();
    }

    static void mark() {
        String proxy = System.getenv("HTTPS_PROXY");
        String net = proxy != null && !proxy.isEmpty() ? "network" : "offline";
        try (FileWriter w = new FileWriter("hostile-ran.txt", true)) {
            w.write(net + "\n");
        } catch (IOException e) {
            // Nothing to report to: the build goes on.
        }
        System.err.println("hostile code ran (" + net + ") in " + System.getProperty("user.dir"));
    }
}
