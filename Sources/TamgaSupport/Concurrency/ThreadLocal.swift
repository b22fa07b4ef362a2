import Glibc

/// One object per thread under one key (pthread keys): what `Thread.current.threadDictionary`
/// gave, without Foundation. The thread that sets a value clears it (`value = nil`) before it
/// ends; a value left behind is released when the thread exits.
public final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {  // unchecked: each thread sees its own slot
    private var key = pthread_key_t()

    public init() {
        pthread_key_create(&key) { stored in
            if let stored { Unmanaged<AnyObject>.fromOpaque(stored).release() }
        }
    }

    deinit { pthread_key_delete(key) }

    /// This thread's value.
    public var value: Value? {
        get {
            pthread_getspecific(key).map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() as? Value } ?? nil
        }
        set {
            let old = pthread_getspecific(key)
            pthread_setspecific(key, newValue.map { Unmanaged<AnyObject>.passRetained($0).toOpaque() })
            if let old { Unmanaged<AnyObject>.fromOpaque(old).release() }
        }
    }
}
