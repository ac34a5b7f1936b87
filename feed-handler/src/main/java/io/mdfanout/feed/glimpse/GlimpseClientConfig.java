package io.mdfanout.feed.glimpse;

import io.mdfanout.wire.ConfigurationException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Configuration of a {@link GlimpseClient}: timeouts and SoupBinTCP credentials. Fluent setters with named defaults;
 * {@link #validate()} reports the first problem as a one-line {@link IllegalArgumentException} naming the setting.
 */
public final class GlimpseClientConfig
{
    /** Default time to establish the TCP connection. */
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
    /**
     * Default time for the whole load, connect to End of Snapshot. A spin of a full trading day's book (a few
     * million orders, ~40 bytes each) takes seconds on a LAN; a minute leaves room and still never hangs.
     */
    public static final long DEFAULT_TIMEOUT_MS = 60_000;
    /** Default username: blank (SoupBinTCP sends spaces). */
    public static final String DEFAULT_USERNAME = "";
    /** Default password: blank. */
    public static final String DEFAULT_PASSWORD = "";
    /** Default requested session: blank, the server's current session. */
    public static final String DEFAULT_REQUESTED_SESSION = "";
    /**
     * Environment variable the feed handler reads the password from when neither {@code --glimpse-password} nor
     * {@code --glimpse-password-file} is given: unlike an argument, it is not shown by {@code ps}.
     */
    public static final String PASSWORD_ENV = "MDFANOUT_GLIMPSE_PASSWORD";
    /** SoupBinTCP's username field length. */
    public static final int USERNAME_LENGTH = 6;
    /** SoupBinTCP's password field length. */
    public static final int PASSWORD_LENGTH = 10;
    /** SoupBinTCP's requested session field length. */
    public static final int SESSION_LENGTH = 10;

    private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
    private long timeoutMs = DEFAULT_TIMEOUT_MS;
    private String username = DEFAULT_USERNAME;
    private String password = DEFAULT_PASSWORD;
    private String requestedSession = DEFAULT_REQUESTED_SESSION;

    /**
     * Time to establish the TCP connection (bounded by {@link #timeoutMs()} too).
     *
     * @param connectTimeoutMs milliseconds, &gt; 0.
     * @return this.
     */
    public GlimpseClientConfig connectTimeoutMs(final long connectTimeoutMs)
    {
        this.connectTimeoutMs = connectTimeoutMs;
        return this;
    }

    /** @return time to establish the TCP connection, in milliseconds. */
    public long connectTimeoutMs()
    {
        return connectTimeoutMs;
    }

    /**
     * Time for the whole load, connect to End of Snapshot.
     *
     * @param timeoutMs milliseconds, &gt; 0.
     * @return this.
     */
    public GlimpseClientConfig timeoutMs(final long timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    /** @return time for the whole load, in milliseconds. */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /**
     * SoupBinTCP username.
     *
     * @param username up to 6 printable ASCII characters; null or blank sends spaces.
     * @return this.
     */
    public GlimpseClientConfig username(final String username)
    {
        this.username = null == username ? DEFAULT_USERNAME : username;
        return this;
    }

    /** @return the username. */
    public String username()
    {
        return username;
    }

    /**
     * SoupBinTCP password.
     *
     * @param password up to 10 printable ASCII characters; null or blank sends spaces.
     * @return this.
     */
    public GlimpseClientConfig password(final String password)
    {
        this.password = null == password ? DEFAULT_PASSWORD : password;
        return this;
    }

    /**
     * The password from one of its three sources: an argument (shown by {@code ps}, kept for compatibility), a file
     * (a mounted Kubernetes Secret: its content up to the first line end) or the environment variable
     * {@link #PASSWORD_ENV}. At most one may be given.
     *
     * @param argument the {@code --glimpse-password} value, or null.
     * @param file     the {@code --glimpse-password-file} path, or null.
     * @param env      the value of {@link #PASSWORD_ENV}, or null.
     * @return the password, {@link #DEFAULT_PASSWORD} when no source is given.
     * @throws IllegalArgumentException when two sources are given.
     * @throws ConfigurationException   naming the file when it cannot be read.
     */
    public static String resolvePassword(final String argument, final Path file, final String env)
    {
        final boolean hasArgument = null != argument && !argument.isEmpty();
        final boolean hasEnv = null != env && !env.isEmpty();
        if ((hasArgument ? 1 : 0) + (null != file ? 1 : 0) + (hasEnv ? 1 : 0) > 1)
        {
            final String given = ((hasArgument ? "--glimpse-password " : "") +
                (null != file ? "--glimpse-password-file " : "") + (hasEnv ? PASSWORD_ENV : "")).trim();
            throw new IllegalArgumentException("GLIMPSE password given more than once (" + given + "): give one, " +
                "the file or " + PASSWORD_ENV + " rather than --glimpse-password, which ps and the pod spec show");
        }
        if (null != file)
        {
            try
            {
                final String content = Files.readString(file, StandardCharsets.US_ASCII);
                final int end = content.indexOf('\n');
                return (end < 0 ? content : content.substring(0, end)).replace("\r", "");
            }
            catch (final IOException | SecurityException ex)
            {
                throw new ConfigurationException("GLIMPSE password file " + file + " cannot be read: " + ex, ex);
            }
        }
        return hasArgument ? argument : hasEnv ? env : DEFAULT_PASSWORD;
    }

    /** @return the password. */
    public String password()
    {
        return password;
    }

    /**
     * SoupBinTCP requested session.
     *
     * @param requestedSession up to 10 printable ASCII characters; null or blank asks for the current session.
     * @return this.
     */
    public GlimpseClientConfig requestedSession(final String requestedSession)
    {
        this.requestedSession = null == requestedSession ? DEFAULT_REQUESTED_SESSION : requestedSession;
        return this;
    }

    /** @return the requested session. */
    public String requestedSession()
    {
        return requestedSession;
    }

    /**
     * Checks every setting.
     *
     * @return this.
     * @throws IllegalArgumentException naming the first setting at fault and its value.
     */
    public GlimpseClientConfig validate()
    {
        if (connectTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("GLIMPSE connect timeout must be > 0 ms: " + connectTimeoutMs);
        }
        if (timeoutMs <= 0)
        {
            throw new IllegalArgumentException("GLIMPSE timeout must be > 0 ms: " + timeoutMs);
        }
        checkField("GLIMPSE username", username, USERNAME_LENGTH);
        checkField("GLIMPSE password", password, PASSWORD_LENGTH);
        checkField("GLIMPSE requested session", requestedSession, SESSION_LENGTH);
        return this;
    }

    private static void checkField(final String name, final String value, final int length)
    {
        final String trimmed = value.trim();
        if (trimmed.length() > length)
        {
            throw new IllegalArgumentException(name + " must be at most " + length + " characters: '" + value + "'");
        }
        for (int i = 0; i < trimmed.length(); i++)
        {
            final char c = trimmed.charAt(i);
            if (c < 0x21 || c > 0x7E)
            {
                throw new IllegalArgumentException(name + " must be printable ASCII without spaces: '" + value + "'");
            }
        }
    }

    /**
     * The settings in one line, password masked.
     *
     * @return the line.
     */
    public String toString()
    {
        return "GlimpseClientConfig{connectTimeoutMs=" + connectTimeoutMs + " timeoutMs=" + timeoutMs +
            " username='" + username.trim() + "' password=" + (password.trim().isEmpty() ? "none" : "***") +
            " requestedSession='" + requestedSession.trim() + "'}";
    }
}
