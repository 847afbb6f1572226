package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;

import org.apache.flink.annotation.Internal;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What native code needs to read a protobuf message: the message's full name and the {@code
 * FileDescriptorSet} of its file and every file it imports, taken from the compiled message class
 * that the {@code protobuf.message-class-name} option names (as Flink's own protobuf format does).
 */
@Internal
final class ProtobufDescriptors {

    static final String MESSAGE_CLASS_NAME = "message-class-name";

    private final Descriptor descriptor;

    private ProtobufDescriptors(Descriptor descriptor) {
        this.descriptor = descriptor;
    }

    /** Loads the message class named by the format's options (keys without the format prefix). */
    static ProtobufDescriptors fromOptions(Map<String, String> options) {
        String className = options.get(MESSAGE_CLASS_NAME);
        if (className == null || className.isBlank()) {
            throw new NativeConfigException(
                    "the protobuf format needs the option 'protobuf." + MESSAGE_CLASS_NAME + "'");
        }
        return new ProtobufDescriptors(descriptorOf(className));
    }

    private static Descriptor descriptorOf(String className) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = ProtobufDescriptors.class.getClassLoader();
        }
        try {
            Class<?> messageClass = Class.forName(className, true, loader);
            Method getDescriptor = messageClass.getMethod("getDescriptor");
            Object descriptor = getDescriptor.invoke(null);
            if (!(descriptor instanceof Descriptor)) {
                throw new NativeConfigException(
                        "'protobuf." + MESSAGE_CLASS_NAME + "' = '" + className
                                + "' is not a generated protobuf message class");
            }
            return (Descriptor) descriptor;
        } catch (ClassNotFoundException e) {
            throw configError(className, "is not on the class path", e);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw configError(className, "is not a generated protobuf message class", e);
        } catch (InvocationTargetException e) {
            throw configError(className, "failed to describe itself", e.getCause());
        }
    }

    private static NativeConfigException configError(String className, String what, Throwable cause) {
        NativeConfigException error =
                new NativeConfigException(
                        "'protobuf." + MESSAGE_CLASS_NAME + "' = '" + className + "' " + what);
        error.initCause(cause);
        return error;
    }

    /** The message's full protobuf name, e.g. {@code shop.v1.Order}. */
    String messageName() {
        return descriptor.getFullName();
    }

    /** The serialized {@code FileDescriptorSet}: every file the message needs, imports first. */
    byte[] fileDescriptorSet() {
        Set<FileDescriptor> ordered = new LinkedHashSet<>();
        addWithImports(descriptor.getFile(), ordered);
        FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
        for (FileDescriptor file : ordered) {
            set.addFile(file.toProto());
        }
        return set.build().toByteArray();
    }

    private static void addWithImports(FileDescriptor file, Set<FileDescriptor> ordered) {
        if (ordered.contains(file)) {
            return;
        }
        for (FileDescriptor dependency : file.getDependencies()) {
            addWithImports(dependency, ordered);
        }
        ordered.add(file);
    }
}
