"""The floor of a first paint: a bare Streamlit page that draws one graphviz chart, nothing else.

`benchmarks/first_paint.py` starts it exactly as it starts StepScope (same `streamlit run` flags) and
opens both in fresh browser sessions: what this page takes is what any Streamlit app pays (the JS
bundle, the websocket, one script run, Graphviz's WASM layout in the browser) before it draws a graph.
The graph is fan_out_search's shape: six nodes drawn with START and END.
"""

import streamlit as st

DOT = """digraph {
  node [shape=box style=rounded]
  __start__ -> start
  start -> search_web
  start -> search_db
  search_web -> merge
  search_db -> merge
  merge -> __end__
}"""

st.set_page_config(page_title="bare graph", layout="wide")
st.graphviz_chart(DOT)
