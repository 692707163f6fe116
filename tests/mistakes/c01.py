"""Typical wrong answers to exercise 01 (the engine), and the hint each must get."""

from exercise_tasks import Mistake

ACCUMULATE = "task-accumulate-grad"
COUNT = "task-count-dependencies"
RUN = "task-run-backward"
ENTRY = "task-tensor-backward"

MISTAKES = [
    # Task 1: AccumulateGrad.backward
    Mistake(cell=ACCUMULATE, what="the first gradient kept as it is, not copied", answer='''
        leaf = self.variable
        if leaf.grad is None:
            leaf.grad = Tensor(np.asarray(grad, dtype=leaf.dtype))
        else:
            leaf.grad = Tensor((leaf.grad.array + grad).astype(leaf.dtype))
        return ()
        ''', hint="Copy the first gradient even when its dtype is already the leaf's"),
    Mistake(cell=ACCUMULATE, what="each gradient replaces .grad", answer='''
        self.variable.grad = Tensor(np.array(grad, dtype=self.variable.dtype))
        return ()
        ''', hint="A second backward ADDS into .grad"),
    Mistake(cell=ACCUMULATE, what="the sum left in NumPy's wider dtype", answer='''
        leaf = self.variable
        if leaf.grad is None:
            leaf.grad = Tensor(np.array(grad, dtype=leaf.dtype))
        else:
            leaf.grad = Tensor(leaf.grad.array + grad)
        return ()
        ''', hint="A later gradient is ADDED into .grad, which keeps the leaf's dtype"),
    Mistake(cell=ACCUMULATE, what="the first gradient in the engine's dtype", answer='''
        leaf = self.variable
        if leaf.grad is None:
            leaf.grad = Tensor(np.array(grad))
        else:
            leaf.grad = Tensor((leaf.grad.array + grad).astype(leaf.dtype))
        return ()
        ''', hint="The first gradient is copied into .grad in the LEAF's dtype"),
    Mistake(cell=ACCUMULATE, what="nothing returned (None, not a tuple)", answer='''
        leaf = self.variable
        if leaf.grad is None:
            leaf.grad = Tensor(np.array(grad, dtype=leaf.dtype))
        else:
            leaf.grad = Tensor((leaf.grad.array + grad).astype(leaf.dtype))
        ''', hint="AccumulateGrad.backward returns one gradient per input, as a tuple"),

    # Task 2: count_dependencies
    Mistake(cell=COUNT, what="a recursive walk", answer='''
        dependencies, seen = {}, set()

        def visit(node):
            for next_node, _ in node.next_functions:
                if next_node is None:
                    continue
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node not in seen:
                    seen.add(next_node)
                    visit(next_node)

        visit(root)
        return dependencies
        ''', hint="A recursive walk dies on a deep graph"),
    Mistake(cell=COUNT, what="no seen set: a node walked once per path", answer='''
        dependencies, stack = {}, [root]
        while stack:
            node = stack.pop()
            for next_node, _ in node.next_functions:
                if next_node is None:
                    continue
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                stack.append(next_node)
        return dependencies
        ''', hint="walk a node's own next_functions only once"),
    Mistake(cell=COUNT, what="nodes counted, not edges", answer='''
        dependencies, stack = {}, [root]
        while stack:
            node = stack.pop()
            for next_node, _ in node.next_functions:
                if next_node is not None and next_node not in dependencies:
                    dependencies[next_node] = 1
                    stack.append(next_node)
        return dependencies
        ''', hint="Count EVERY edge into a node"),
    Mistake(cell=COUNT, what="the root put in the dict with count 0", answer='''
        dependencies, stack, seen = {root: 0}, [root], {root}
        while stack:
            node = stack.pop()
            for next_node, _ in node.next_functions:
                if next_node is None:
                    continue
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node not in seen:
                    seen.add(next_node)
                    stack.append(next_node)
        return dependencies
        ''', hint="The root is not a key of the dict"),
    Mistake(cell=COUNT, what="the None edges counted", answer='''
        dependencies, stack, seen = {}, [root], {root}
        while stack:
            node = stack.pop()
            for next_node, _ in node.next_functions:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node is not None and next_node not in seen:
                    seen.add(next_node)
                    stack.append(next_node)
        return dependencies
        ''', hint="Skip the edges whose node is None"),

    # Task 3: run_backward
    Mistake(cell=RUN, what="a later gradient replaces the one in flight", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [(-root.sequence_nr, root)]
        while ready:
            _, node = heapq.heappop(ready)
            node_grad = in_flight.pop(node, None)
            grads = (None,) * len(node.next_functions) if node_grad is None else node(node_grad)
            for (next_node, _), next_grad in zip(node.next_functions, grads):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-next_node.sequence_nr, next_node))
        ''', hint="must be ADDED before the node runs"),
    Mistake(cell=RUN, what="no counting: a node runs each time a gradient arrives", answer='''
        ready = [(-root.sequence_nr, id(root), root, grad)]
        while ready:
            _, _, node, node_grad = heapq.heappop(ready)
            for (next_node, _), next_grad in zip(node.next_functions, node(node_grad)):
                if next_node is not None and next_grad is not None:
                    heapq.heappush(ready, (-next_node.sequence_nr, id(next_grad), next_node, next_grad))
        ''', hint="Run a node once, when its dependency count reaches 0"),
    Mistake(cell=RUN, what="oldest first: the heap keyed on +sequence_nr", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [(root.sequence_nr, root)]
        while ready:
            _, node = heapq.heappop(ready)
            node_grad = in_flight.pop(node, None)
            grads = (None,) * len(node.next_functions) if node_grad is None else node(node_grad)
            for (next_node, _), next_grad in zip(node.next_functions, grads):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (next_node.sequence_nr, next_node))
        ''', hint="Ready nodes run newest first"),
    Mistake(cell=RUN, what="a plain queue of ready nodes, first in first out", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [root]
        while ready:
            node = ready.pop(0)
            node_grad = in_flight.pop(node, None)
            grads = (None,) * len(node.next_functions) if node_grad is None else node(node_grad)
            for (next_node, _), next_grad in zip(node.next_functions, grads):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    ready.append(next_node)
        ''', hint="Ready nodes run newest first"),
    Mistake(cell=RUN, what="bare nodes pushed on the heap", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [root]
        while ready:
            node = heapq.heappop(ready)
            node_grad = in_flight.pop(node, None)
            grads = (None,) * len(node.next_functions) if node_grad is None else node(node_grad)
            for (next_node, _), next_grad in zip(node.next_functions, grads):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, next_node)
        ''', hint="heapq compared two nodes"),
    Mistake(cell=RUN, what="a recursive engine", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}

        def run(node):
            node_grad = in_flight.pop(node, None)
            grads = (None,) * len(node.next_functions) if node_grad is None else node(node_grad)
            for (next_node, _), next_grad in zip(node.next_functions, grads):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    run(next_node)

        run(root)
        ''', hint="A recursive engine dies on a deep graph"),
    Mistake(cell=RUN, what="a None gradient skipped without lowering the count", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [(-root.sequence_nr, root)]
        while ready:
            _, node = heapq.heappop(ready)
            for (next_node, _), next_grad in zip(node.next_functions, node(in_flight.pop(node))):
                if next_node is None or next_grad is None:
                    continue
                in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-next_node.sequence_nr, next_node))
        ''', hint="A None gradient delivers nothing, but its edge has delivered"),
    Mistake(cell=RUN, what="a node that only None reached is called with None", answer='''
        dependencies = count_dependencies(root)
        in_flight = {root: grad}
        ready = [(-root.sequence_nr, root)]
        while ready:
            _, node = heapq.heappop(ready)
            for (next_node, _), next_grad in zip(node.next_functions, node(in_flight.pop(node, None))):
                if next_node is None:
                    continue
                if next_grad is not None:
                    in_flight[next_node] = in_flight.get(next_node, 0) + next_grad
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-next_node.sequence_nr, next_node))
        ''', hint="A node that only None reached has no gradient"),

    # Task 3: Tensor.backward
    Mistake(cell=ENTRY, what="any output starts from 1, not only a scalar", answer='''
        if gradient is None:
            gradient = np.ones_like(self.array)
        run_backward(gradient_edge(self)[0], as_tensor(gradient).array)
        ''', hint="backward() with no gradient starts from 1 only for a scalar"),
    Mistake(cell=ENTRY, what="the gradient Tensor handed to the engine as it is", answer='''
        if gradient is None:
            if self.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = np.ones_like(self.array)
        run_backward(gradient_edge(self)[0], gradient)
        ''', hint="backward(gradient) gets a Tensor"),
    Mistake(cell=ENTRY, what="started at grad_fn, which a leaf lacks", answer='''
        if gradient is None:
            if self.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = np.ones_like(self.array)
        run_backward(self.grad_fn, as_tensor(gradient).array)
        ''', hint="leaf.backward() starts at the leaf's own AccumulateGrad"),
    Mistake(cell=ENTRY, what="a 0-d 1 for any one-element output", answer='''
        if gradient is None:
            if self.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = np.array(1.0)
        run_backward(gradient_edge(self)[0], as_tensor(gradient).array)
        ''', hint="starts from 1 shaped like the"),
]
