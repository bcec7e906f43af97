"""Phase 1, sub-graph detection: the bundle's pages as connected sub-graphs with their roots.

The links between the bundle's pages make a directed graph (links to pages already in the graph
are not part of it). A root is a page no other page of the bundle links to. Pages reachable from
several roots would be planned and executed twice if each root kept its own descendants, so a
sub-graph is a weakly connected component: its roots, and every page below them.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from kg_pipelines.merger.pages import PageBundle


@dataclass
class SubGraph:
    subgraph_id: str
    root_ids: list[str]  # in bundle order; the first is the SubGraphPlan's root_id
    page_ids: list[str]  # breadth-first from the roots, following links in their order

    @property
    def root_id(self) -> str:
        return self.root_ids[0]


def link_graph(bundle: PageBundle) -> nx.DiGraph:
    """parent page -> child page, for links between pages of the bundle (edge attribute edge_type)."""
    ids = {p.page_id for p in bundle.pages}
    graph = nx.DiGraph()
    graph.add_nodes_from(p.page_id for p in bundle.pages)
    for page in bundle.pages:
        for link in page.page_links:
            if link.target_id in ids:
                graph.add_edge(page.page_id, link.target_id, edge_type=link.edge_type)
    return graph


def detect_subgraphs(bundle: PageBundle) -> list[SubGraph]:
    graph = link_graph(bundle)
    order = {p.page_id: i for i, p in enumerate(bundle.pages)}
    roots = [p.page_id for p in bundle.pages if graph.in_degree(p.page_id) == 0]
    subgraphs: list[SubGraph] = []
    assigned: set[str] = set()
    for component in sorted(nx.weakly_connected_components(graph), key=lambda c: min(order[n] for n in c)):
        component_roots = [r for r in roots if r in component]
        visited: list[str] = []
        queue = list(component_roots)
        while queue:
            page_id = queue.pop(0)
            if page_id in visited:
                continue
            visited.append(page_id)
            queue.extend(graph.successors(page_id))  # insertion order = link order
        assigned.update(visited)
        subgraphs.append(SubGraph(f"sg{len(subgraphs) + 1}-{component_roots[0]}", component_roots, visited))
    return subgraphs
