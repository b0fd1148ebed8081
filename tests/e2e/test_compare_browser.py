"""The Compare page in Debian's chromium: the open run (the subgraph trap) is A; its fixed version, stored,
is picked as B; the page says where they part and which finding is gone, shows a step side by side, and
its link opens the same comparison in a new window."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from debugger.stores.sqlite import RunStore
from engine.trace import Recorder


def _store_fixed_trap(db) -> str:
    from sample_graphs.subgraph_trap import fixed_graph, fixed_input

    recorder = Recorder()
    fixed_graph.invoke(fixed_input, hooks=recorder)
    recorder.trace.target = "subgraph_trap (fixed)"
    return RunStore(str(db)).save(recorder.trace)


def test_compare_the_trap_with_its_fix_then_reopen_the_link(app, e2e_db, new_session, shot):
    fixed_id = _store_fixed_trap(e2e_db)
    page = app.open("/?sample=subgraph_trap&step=2").page
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Compare").click()
    app.idle()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="Compare two runs")).to_be_visible()
    main.get_by_role("combobox", name="Stored run").click()
    page.get_by_role("option", name=re.compile(rf"^{fixed_id[:12]}")).click()
    app.idle()
    expect(main.get_by_text(re.compile(r"The runs first differ at step 0\."))).to_be_visible()
    # the finding is said in the success line and again in the findings table (glide's grid puts a cell
    # in the DOM for screen readers once it has drawn it), so the line is looked for where it is said
    gone = re.compile(r"subgraph duplication on .?log.? at step 2 is gone in B")
    expect(main.get_by_test_id("stAlertContentSuccess").get_by_text(gone)).to_be_visible()
    main.get_by_role("combobox", name="Step").click()
    page.get_by_role("option", name=re.compile(r"^step 2 ")).click()
    app.idle()
    expect(main.get_by_text("State after the step")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/compare\?.*b={fixed_id}.*b_step=2|/compare\?.*b_step=2.*b={fixed_id}"))
    shot("27-compare-trap-and-fix")

    again = new_session("/" + page.url.split("/", 3)[3], graph=False)
    other = again.page.locator('[data-testid="stMain"]')
    expect(other.get_by_text(re.compile(r"The runs first differ at step 0\."))).to_be_visible()
    expect(other.get_by_role("combobox", name="Step")).to_have_value(re.compile(r"^step 2 "))
    again.save("27-compare-linked-reopened")
