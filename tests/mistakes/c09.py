"""Typical wrong answers to exercise 09 (detect_anomaly, the forward stack a node keeps, the
engine's report), and the hint each must get."""

from exercise_tasks import Mistake

SWITCH = "task-detect-anomaly"   # Task 1: detect_anomaly
STACK = "task-node-stack"        # Task 2: Node.__init__ keeps the forward stack
REPORT = "task-engine-report"    # Task 3: Node.__call__ reports a failing node

# Task 3's reference answer, with one piece changed at a time (PIECES[name] = its text)
_TRY = '''
try:
    grads = _call_without_anomaly(self, grad)
    {nan}
except Exception:
    if AnomalyMode.enabled:
        {report}
    raise
return grads
'''
_NAN = '''if AnomalyMode.enabled and AnomalyMode.check_nan:
        for i, ((next_node, _), g) in enumerate(zip(self.next_functions, grads)):
            if next_node is not None and g is not None and np.isnan(g).any():
                raise RuntimeError(f"Function '{self.name()}' returned nan values in its {i}th output.")'''
_REPORT = '''stack = self.metadata.get("traceback_")
        if stack is None:
            warnings.warn(f"Error detected in {self.name()}. No forward pass information available. "
                          "Enable detect anomaly during forward pass for more information.", UserWarning)
        else:
            warnings.warn(f"Error detected in {self.name()}. Traceback of forward call that caused "
                          "the error:\\n" + "".join(stack), UserWarning)'''


def _report(nan=_NAN, report=_REPORT, head="try:", tail="    raise"):
    text = _TRY.format(nan=nan, report=report).replace("try:", head, 1)
    return text.replace("\n    raise\n", f"\n{tail}\n")


MISTAKES = [
    # Task 1: detect_anomaly
    Mistake(cell=SWITCH, what="the settings turned off at the end, not restored", answer='''
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        try:
            yield
        finally:
            AnomalyMode.enabled, AnomalyMode.check_nan = False, True
        ''', hint="restore the settings as they were before the block"),
    Mistake(cell=SWITCH, what="no try/finally: an error in the block leaves it on", answer='''
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
        before = AnomalyMode.enabled, AnomalyMode.check_nan
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        yield
        AnomalyMode.enabled, AnomalyMode.check_nan = before
        ''', hint="restore the settings even when the block raises"),
    Mistake(cell=SWITCH, what="check_nan ignored: the nan check always on", answer='''
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
        before = AnomalyMode.enabled, AnomalyMode.check_nan
        AnomalyMode.enabled = True
        try:
            yield
        finally:
            AnomalyMode.enabled, AnomalyMode.check_nan = before
        ''', hint="check_nan=False turns the nan check off inside the block"),
    Mistake(cell=SWITCH, what="the warning printed", answer='''
        print(ENABLED_WARNING)
        before = AnomalyMode.enabled, AnomalyMode.check_nan
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        try:
            yield
        finally:
            AnomalyMode.enabled, AnomalyMode.check_nan = before
        ''', hint="warn with warnings.warn(..., UserWarning)"),
    Mistake(cell=SWITCH, what="no warning", answer='''
        before = AnomalyMode.enabled, AnomalyMode.check_nan
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        try:
            yield
        finally:
            AnomalyMode.enabled, AnomalyMode.check_nan = before
        ''', hint="detect_anomaly warns when its block starts"),
    Mistake(cell=SWITCH, what="the block's error swallowed", answer='''
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
        before = AnomalyMode.enabled, AnomalyMode.check_nan
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        try:
            yield
        except Exception:
            pass
        finally:
            AnomalyMode.enabled, AnomalyMode.check_nan = before
        ''', hint="an error raised inside the block goes on, unchanged"),
    Mistake(cell=SWITCH, what="a function that returns, not a generator that yields", answer='''
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
        AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
        ''', hint="detect_anomaly is a generator under @contextlib.contextmanager"),

    # Task 2: the forward stack a node keeps
    Mistake(cell=STACK, what="kept whether anomaly detection is on or off", answer='''
        self.metadata["traceback_"] = forward_stack()
        ''', hint="while anomaly detection is off a node keeps nothing"),
    Mistake(cell=STACK, what="traceback.format_stack() itself: it ends inside the package", answer='''
        if AnomalyMode.enabled:
            self.metadata["traceback_"] = traceback.format_stack()
        ''', hint="keep what the given forward_stack() returns"),
    Mistake(cell=STACK, what="another key", answer='''
        if AnomalyMode.enabled:
            self.metadata["traceback"] = forward_stack()
        ''', hint="node.metadata['traceback_'] (PyTorch's key"),
    Mistake(cell=STACK, what="the stack joined into one string", answer='''
        if AnomalyMode.enabled:
            self.metadata["traceback_"] = "".join(forward_stack())
        ''', hint="keep the list of strings forward_stack() returns"),
    Mistake(cell=STACK, what="kept only with the nan check on", answer='''
        if AnomalyMode.enabled and AnomalyMode.check_nan:
            self.metadata["traceback_"] = forward_stack()
        ''', hint="check_nan only turns the nan check on or off"),
    Mistake(cell=STACK, what="only its last frame kept", answer='''
        if AnomalyMode.enabled:
            self.metadata["traceback_"] = forward_stack()[-1:]
        ''', hint="keep the whole stack forward_stack() returns"),

    # Task 3: the engine's report
    Mistake(cell=REPORT, what="a new error, with the stack in its message", answer=_report(
        tail='''    stack = "".join(self.metadata.get("traceback_", []))
    raise RuntimeError(f"{stack}{error}")''', head="try:").replace(
        "except Exception:", "except Exception as error:"),
        hint="let the node's error go on unchanged"),
    Mistake(cell=REPORT, what="reported whenever the node kept a stack, on or off", answer=_report().replace(
        "    if AnomalyMode.enabled:\n        stack", "    if \"traceback_\" in self.metadata:\n        stack"),
        hint="report only while anomaly detection is on when the node fails"),
    Mistake(cell=REPORT, what="a node without a stack reported with an empty one", answer=_report(
        report='''warnings.warn(f"Error detected in {self.name()}. Traceback of forward call that caused "
                          "the error:\\n" + "".join(self.metadata.get("traceback_", [])), UserWarning)'''),
        hint="a node made while anomaly detection was off kept no stack"),
    Mistake(cell=REPORT, what="a node without a stack: a KeyError", answer=_report(
        report='''warnings.warn(f"Error detected in {self.name()}. Traceback of forward call that caused "
                          "the error:\\n" + "".join(self.metadata["traceback_"]), UserWarning)'''),
        hint="a node made while anomaly detection was off kept no stack"),
    Mistake(cell=REPORT, what="the stack joined with newlines", answer=_report().replace(
        '+ "".join(stack)', '+ "\\n".join(stack)'),
        hint="join them with ''"),
    Mistake(cell=REPORT, what="the report printed", answer=_report().replace(
        "warnings.warn(", "print(").replace(", UserWarning)", ")"),
        hint="report with warnings.warn(..., UserWarning)"),
    Mistake(cell=REPORT, what="the nan check after the try: the nan error not reported", answer='''
        try:
            grads = _call_without_anomaly(self, grad)
        except Exception:
            if AnomalyMode.enabled:
                stack = self.metadata.get("traceback_")
                if stack is None:
                    warnings.warn(f"Error detected in {self.name()}. No forward pass information available. "
                                  "Enable detect anomaly during forward pass for more information.", UserWarning)
                else:
                    warnings.warn(f"Error detected in {self.name()}. Traceback of forward call that caused "
                                  "the error:\\n" + "".join(stack), UserWarning)
            raise
        if AnomalyMode.enabled and AnomalyMode.check_nan:
            for i, ((next_node, _), g) in enumerate(zip(self.next_functions, grads)):
                if next_node is not None and g is not None and np.isnan(g).any():
                    raise RuntimeError(f"Function '{self.name()}' returned nan values in its {i}th output.")
        return grads
        ''', hint="raise it inside the try"),
    Mistake(cell=REPORT, what="every gradient checked, those going nowhere too", answer=_report().replace(
        "if next_node is not None and g is not None and", "if g is not None and"),
        hint="only the gradients that go somewhere are checked"),
    Mistake(cell=REPORT, what="inf taken for an anomaly", answer=_report().replace(
        "np.isnan(g).any()", "not np.isfinite(g).all()"),
        hint="only nan is an anomaly"),
    Mistake(cell=REPORT, what="check_nan ignored", answer=_report().replace(
        "if AnomalyMode.enabled and AnomalyMode.check_nan:", "if AnomalyMode.enabled:"),
        hint="with check_nan=False (AnomalyMode.check_nan) nan gradients pass"),
    Mistake(cell=REPORT, what="the nan check while anomaly detection is off", answer=_report().replace(
        "if AnomalyMode.enabled and AnomalyMode.check_nan:", "if AnomalyMode.check_nan:"),
        hint="while anomaly detection is off, nothing is checked"),
    Mistake(cell=REPORT, what="a None gradient checked", answer=_report().replace(
        "if next_node is not None and g is not None and", "if next_node is not None and"),
        hint="a gradient that is None (an input that gets none) is not checked"),
    Mistake(cell=REPORT, what="the outputs counted from 1", answer=_report().replace(
        "enumerate(zip(self.next_functions, grads))", "enumerate(zip(self.next_functions, grads), 1)"),
        hint="counted from 0"),
    Mistake(cell=REPORT, what="the gradients not returned", answer=_report().replace(
        "return grads", "pass"),
        hint="__call__ returns the node's gradients"),
]
