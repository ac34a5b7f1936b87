package io.mdfanout.wire;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version and git revision this build was made from, read from {@code build-info.properties}, which the
 * build stamps: every role reports them ({@code --version}, the {@code mdfanout_build_info} metric).
 */
public final class BuildInfo
{
    private static final String UNKNOWN = "unknown";
    private static final String VERSION;
    private static final String REVISION;

    static
    {
        final Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build-info.properties"))
        {
            if (null != in)
            {
                properties.load(in);
            }
        }
        catch (final IOException ignore)
        {
            // Unknown rather than no role at all: the values are informative only.
        }
        VERSION = stamped(properties.getProperty("version"));
        REVISION = stamped(properties.getProperty("revision"));
    }

    private BuildInfo()
    {
    }

    /** @return the project version, e.g. {@code 0.1.0}, or {@code unknown}. */
    public static String version()
    {
        return VERSION;
    }

    /** @return the git revision the build was made from, or {@code unknown}. */
    public static String revision()
    {
        return REVISION;
    }

    private static String stamped(final String value)
    {
        // An unfiltered resource (an IDE build) still holds the ${...} placeholder.
        return null == value || value.isBlank() || value.startsWith("${") ? UNKNOWN : value.trim();
    }
}
