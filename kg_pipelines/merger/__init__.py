"""The knowledge merger (seed 000): proposed wiki pages merged into the graph, sub-graph by
sub-graph: detect sub-graphs, plan top-down, execute bottom-up, audit, retry, finalize."""
