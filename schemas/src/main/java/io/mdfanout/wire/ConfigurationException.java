package io.mdfanout.wire;

/**
 * A role cannot start as configured, for a reason outside its own options: a resource another process holds (the
 * ring directory), files of another layout or partition count than its options say, too little room for its files.
 * Every role exits with {@link ExitCodes#CONFIG} on it, where another failure is {@link ExitCodes#FAILURE}.
 */
public class ConfigurationException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message the one-line explanation an operator reads.
     */
    public ConfigurationException(final String message)
    {
        super(message);
    }

    /**
     * @param message the one-line explanation an operator reads.
     * @param cause   what went wrong underneath.
     */
    public ConfigurationException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
