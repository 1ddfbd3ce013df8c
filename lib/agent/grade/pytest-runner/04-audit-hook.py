# Crucible pytest runner, part 04: the audit hook: frames, memory, native code, the task files' names.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


# --- the audit hook ----------------------------------------------------------------------------
def _nested(code, name):
    return next(c for c in code.co_consts if _isinstance(c, types.CodeType) and c.co_name == name)


def _make_audit_hook(state):
    """The audit hook and the switch that arms it. Until armed (just before pytest.main) it
    allows everything; armed, it refuses what would reach frames or memory, records each
    refusal in `state["tampered"]` and raises. Its own lookups re-enter it: those pass.

    Everything it uses is bound here, in its closure: it looks up no module global and no
    builtin by name, so rebinding `__main__`'s names or `builtins` cannot change what it does,
    and it calls no library code written in Python (whose globals could have been rebound)."""
    getframe, get_ident, readlink, listdir, getcwd = sys._getframe, _thread.get_ident, posix.readlink, posix.listdir, posix.getcwd
    access, W_OK = posix.access, posix.W_OK
    isinstance_, len_, str_, bytes_, zip_, vars_, tuple_ = isinstance, len, str, bytes, zip, vars, tuple
    OSError_, RuntimeError_ = OSError, RuntimeError
    bi, tb_mod = builtins, traceback
    frame_attrs = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
    always = frozenset((
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys._current_exceptions",
        "sys.settrace", "sys.setprofile", "sys.addaudithook",
    ))
    watch = always | {"sys._getframe", "object.__getattr__", "object.__setattr__", "function.__new__", "import", "open", "exec", "code.__new__", "compile", "crucible.suspect"}
    # the repository's own code as it was before the agent's patch, and the task's files: a
    # frame they ask for is the library's business (sentinels, logging, decorators in real
    # libraries), not the agent's; what the agent added or changed is never on this list
    trusted_files = state["trusted_files"]
    trusted = state["trusted"]
    suspect = state["suspect"]
    # stdlib helpers that hand their caller a frame: the caller decides
    frame_returners = frozenset((inspect.currentframe.__code__, inspect.stack.__code__))
    # the import system compiles every module it loads under the module's own file name
    source_to_code = importlib.machinery.SourceFileLoader.source_to_code.__code__
    ast_parse = __import__("ast").parse.__code__
    # the task's own Python files (tests, conftests, test helpers), compiled before any
    # workspace code ran: a module of that name may only ever run as exactly that code
    pinned = state["pinned"]
    code_type = types.CodeType
    path_chars = "/.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    busy = set()
    armed = [False]
    tampered = state["tampered"]
    # callers that may get a frame: they only read a module name or a location from it
    getframe_ok = {
        collections.namedtuple.__code__: None,
        typing._caller.__code__: None,
        vars(enum.EnumType)["_create_"].__code__: None,
        pytest.Config.issue_config_time_warning.__code__: None,
        logging.currentframe.__code__: frozenset((logging.Logger.findCaller.__code__,)),
        _genuine.__code__: None,
    }
    # the traceback module's own walk (format_exception, extract_tb, print_exc, logging's
    # exception text): it turns frames into strings and hands none out
    from_gen = traceback.StackSummary._extract_from_extended_frame_gen.__func__.__code__
    ext_gen = _nested(traceback.StackSummary.extract.__func__.__code__, "extended_frame_gen")
    walk_tb = traceback.walk_tb.__code__
    clear_frames = traceback.clear_frames.__code__
    walk_full = traceback._walk_tb_with_full_positions.__code__
    # …as long as nothing it renders locals with was rebound (that would be handed frames)
    tb_module = dict(vars(traceback))
    tb_classes = ((traceback.StackSummary, dict(vars(traceback.StackSummary))), (traceback.FrameSummary, dict(vars(traceback.FrameSummary))))
    real_repr, real_str = builtins.repr, builtins.str
    protected = frozenset(getframe_ok) | {from_gen, ext_gen, walk_tb, walk_full, clear_frames}

    def traceback_intact():
        if bi.repr is not real_repr or bi.str is not real_str:
            return False
        now = vars_(tb_mod)
        for k, v in tb_module.items():
            if now.get(k) is not v:
                return False
        for cls, before in tb_classes:
            now = vars_(cls)
            for k, v in before.items():
                if now.get(k) is not v:
                    return False
        return True

    def tb_walk_ok(caller):
        code, up = caller.f_code, caller.f_back
        if up is None:
            return False
        if code is walk_full:
            return up.f_code is from_gen
        if code is walk_tb:
            if up.f_code is from_gen:
                return True
            return up.f_code is ext_gen and up.f_back is not None and up.f_back.f_code is from_gen
        return False

    def resolve(path, base):
        # `path` (relative to `base`) with every symlink followed, by readlink alone
        if not path.startswith("/"):
            path = base + "/" + path
        todo = [p for p in path.split("/") if p and p != "."]
        done = []
        hops = 0
        while todo:
            part = todo.pop(0)
            if part == "..":
                if done:
                    done.pop()
                continue
            here = "/" + "/".join(done + [part])
            try:
                link = readlink(here)
            except OSError_:
                done.append(part)
                continue
            hops += 1
            if hops > 40 or not link or link[0] not in path_chars:
                done.append(part)  # a loop, or a magic link (pipe:[…], anon_inode:…): not a path
                continue
            if link.startswith("/"):
                done = []
            todo = [p for p in link.split("/") if p and p != "."] + todo
        return "/" + "/".join(done)

    def is_memory(path):
        # whether opening `path` opens a process's memory (/proc/PID/mem) through any symlink; a
        # relative path is tried against the working directory and every directory this process
        # has open (os.open(…, dir_fd=…): the audit event does not carry the dir_fd)
        if isinstance_(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(path, str_):
            return False
        bases = [getcwd()]
        if not path.startswith("/"):
            for fd in listdir("/proc/self/fd"):
                try:
                    bases.append(readlink("/proc/self/fd/" + fd))
                except OSError_:
                    pass
        for base in bases:
            if base.startswith("/"):
                real = resolve(path, base)
                if real.startswith("/proc/") and real.rsplit("/", 1)[-1] == "mem":
                    return True
        return False

    # native code may come only from the environment's read-only system directories: an
    # extension module the code under test wrote (into the workspace, /tmp, /dev/shm) could
    # read and write this process's memory, key and results included
    system_dirs = ("/usr/", "/lib/", "/lib64/", "/opt/")

    def system_file(path):
        if isinstance_(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(path, str_) or not path.startswith("/") or "/../" in path or "/./" in path or "//" in path:
            return False
        real = resolve(path, "/")
        cut = real.rfind("/")
        return (
            path.startswith(system_dirs)
            and real.startswith(system_dirs)
            and not access(real, W_OK)
            and not access(real[:cut] or "/", W_OK)
        )

    def where(code):
        return "%s (%s)" % (code.co_name, code.co_filename)

    def refuse(event, args):
        # None, or (kind, why): "tampered" fails every test; "suspect" refuses the call (it
        # raises where it was made) and holds the grade for review with the evidence: frame
        # access the repository's own code did not make may still be honest code of the agent's
        if event in always:
            return "tampered", event
        if event == "sys._getframe":
            caller = getframe(2)
            code = caller.f_code
            if code in getframe_ok:
                parents = getframe_ok[code]
                if parents is None or (caller.f_back is not None and caller.f_back.f_code in parents):
                    return None
            if code in frame_returners and caller.f_back is not None:
                caller = caller.f_back
                code = caller.f_code
            if trusted(code, caller.f_lineno):
                return None
            return "suspect", "sys._getframe from %s, code the repository did not have" % where(code)
        if event == "object.__getattr__":
            caller = getframe(2)
            if args[1] == "tb_frame" and tb_walk_ok(caller) and traceback_intact():
                return None
            # unittest's assertRaises clears the locals of the frames it caught: frames in, none out
            if args[1] == "tb_frame" and caller.f_code is clear_frames and traceback_intact():
                return None
            if trusted(caller.f_code, caller.f_lineno):
                return None
            return "suspect", "%s from %s, code the repository did not have" % (args[1], where(caller.f_code))
        if event == "crucible.suspect":
            return "suspect", str_(args[0])[:300] if len_(args) else "suspect"
        if event == "compile":
            # code compiled under the name of one of the repository's or the task's files would
            # pass for theirs (frames, comparisons); the import system's own compile is the one
            # allowed to
            name = args[1]
            if isinstance_(name, bytes_):
                name = name.decode("utf-8", "surrogateescape")
            if isinstance_(name, str_) and (name in trusted_files or name in pinned):
                caller = getframe(2)
                up = caller.f_back
                importing = caller.f_code.co_name == "_call_with_frames_removed" and up is not None and up.f_code is source_to_code
                # ast.parse compiles to a tree only (tracebacks' caret anchors, libraries reading
                # source): no code comes of it without a compile of the agent's own, seen here
                # (the task's and the repository's own code may: the C traceback printer parses
                # a test's line for its caret anchors, in the test's frame)
                if not importing and caller.f_code is not ast_parse and not trusted(caller.f_code, caller.f_lineno):
                    return "suspect", "code compiled under the name of %s (by %s)" % (name, where(caller.f_code))
            return None
        if event == "object.__setattr__":
            return "tampered", "setting %s" % args[1]
        if event == "function.__new__":
            if args[0] in protected:
                return "tampered", "a new function from a grader-trusted code object"
            return ("tampered", "a function made by hand from code of %s" % args[0].co_filename) if args[0].co_filename in pinned else None
        if event == "exec":
            code = args[0]
            if not isinstance_(code, code_type) or code.co_filename not in pinned:
                return None
            variants = pinned[code.co_filename]
            for good in variants if isinstance_(variants, tuple_) else ():
                if code == good:
                    return None
            return "tampered", "running code as %s that is not the task's file" % code.co_filename
        if event == "code.__new__":
            return ("tampered", "making a code object named as the task's %s" % args[1]) if isinstance_(args[1], str_) and args[1] in pinned else None
        if event == "import":
            name, path = args[0], args[1]
            if name in ("ctypes", "_ctypes") or name.startswith("ctypes."):
                return "tampered", "importing %s" % name
            # a path is only given when an extension module (native code) is loaded
            if path is not None and not system_file(path):
                return "tampered", "loading native code from %r (an extension module outside the environment's read-only directories)" % (path,)
            return None
        if event == "open":
            return ("tampered", "opening %r (process memory)" % (args[0],)) if is_memory(args[0]) else None
        return None

    def hook(event, args):
        if event not in watch and not event.startswith("ctypes."):
            return
        if not armed[0]:
            return
        if event == "object.__getattr__" and args[1] not in frame_attrs:
            return
        if event == "object.__setattr__" and args[1] != "__code__":
            return
        tid = get_ident()
        if tid in busy:
            return
        busy.add(tid)
        try:
            verdict = ("tampered", event) if event.startswith("ctypes.") else refuse(event, args)
        finally:
            busy.discard(tid)
        if verdict:
            kind, why = verdict
            if kind == "suspect":
                if len_(suspect) < 20 and why not in suspect:
                    suspect.append(why)
                if event in ("crucible.suspect", "compile"):
                    return  # evidence only: the call itself goes ahead
            elif len_(tampered) < 20:
                tampered.append("refused: " + why)
            raise RuntimeError_("crucible grader: %s is not allowed while grading" % why)

    return hook, armed
