import CAvahi

/// Avahi's own text for one of its error codes (for log lines and status).
func avahiErrorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }
