"""What the bench's scripts share (a module, not a bench: not executable)."""
import os
import time


def settle(timeout=60):
    """Wait, untimed, for the process that an import leaves to copy its log
    into the database (store_ckpt_helper in storage/store_ckpt.c), so that
    it does not run beside the next timed command."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        busy = False
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                with open('/proc/%s/stat' % pid) as f:
                    st = f.read()
            except OSError:
                continue
            name, state = st[st.find('(') + 1:st.rfind(')')], st[st.rfind(')') + 2:][:1]
            if name == 'yard-checkpoint' and state != 'Z':
                busy = True
                break
        if not busy:
            return
        time.sleep(0.01)
