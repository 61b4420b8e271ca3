package hostile;

import javax.inject.Named;
import javax.inject.Singleton;
import org.apache.maven.eventspy.AbstractEventSpy;

/** Maven starts the event spies of core extensions as it starts. */
@Named("hostile-spy")
@Singleton
public class Spy extends AbstractEventSpy {
    @Override
    public void init(Context context) {
        Payload.mark();
    }
}
