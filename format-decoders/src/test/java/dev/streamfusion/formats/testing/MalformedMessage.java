package dev.streamfusion.formats.testing;

/** One named message of a malformed-input corpus. */
public final class MalformedMessage {

    public final String name;
    public final byte[] bytes;

    public MalformedMessage(String name, byte[] bytes) {
        this.name = name;
        this.bytes = bytes;
    }

    /** Whether the corpus counts the message as well-formed. */
    public boolean valid() {
        return name.startsWith("valid");
    }

    @Override
    public String toString() {
        return name;
    }
}
