"""The rules of the bot's menu layout, as pure functions on the document
(:class:`~subsvc_menus.schemas.layout.MenuLayout`): its defaults, its checks, and every change
the constructor offers. Refusals are :class:`LayoutError` with the HTTP status they mean."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from pydantic import ValidationError

from subsvc.api import from_attributes
from subsvc.api.refusal import Refusal
from subsvc_menus import catalogue
from subsvc_menus.schemas.layout import (
    AddCustomButtonRequest,
    AddRowRequest,
    ButtonConditions,
    MenuButtonConfig,
    MenuLayout,
    MenuRowConfig,
)

log = logging.getLogger("subsvc.menus")
MAX_PLACED_BUTTONS = 100  # the messenger's limit for one inline keyboard
CALLBACK_DATA_BYTES = 64
LINK_PREFIXES = ("http://", "https://", "tg://")
Issue = tuple[list[str | int], str, str]  # (loc, type, message)


class LayoutError(Refusal):
    """A refused change: ``status`` 400 (invalid), 404 (unknown id) or 409 (id taken)."""


def _not_found(what: str, key: str, suffix: str = "") -> LayoutError:
    return LayoutError(404, f"{what} '{key}' not found{suffix}")


def default_layout() -> MenuLayout:
    """The layout the bot starts with: every builtin button in its usual row."""
    buttons = {}
    for key, (action, ru, en, visibility, conditions, _, dynamic, _) in catalogue.BUILTIN.items():
        buttons[key] = MenuButtonConfig(
            type="builtin",
            builtin_id=key,
            text={"ru": ru, "en": en},
            action=action,
            visibility=visibility,
            conditions=ButtonConditions(**conditions) if conditions else None,
            dynamic_text=dynamic,
        )
    rows = [
        MenuRowConfig(
            id=row_id,
            buttons=list(ids),
            conditions=ButtonConditions(**conditions) if conditions else None,
            max_per_row=per_line,
        )
        for row_id, ids, conditions, per_line in catalogue.DEFAULT_ROWS
    ]
    return MenuLayout(version=1, rows=rows, buttons=buttons)


def load(data: dict[str, Any] | None) -> MenuLayout:
    """The stored document, or the defaults (also for a document that no longer validates)."""
    if data is None:
        return default_layout()
    try:
        return MenuLayout.model_validate(data)
    except ValidationError:
        log.warning("the stored menu layout does not validate; the default layout is used")
        return default_layout()


def dump(layout: MenuLayout) -> dict[str, Any]:
    """The document as stored (JSON)."""
    return layout.model_dump(mode="json")


def has_placeholders(text: dict[str, str]) -> bool:
    return any(name in value for value in text.values() for name in catalogue.PLACEHOLDER_NAMES)


def _condition_issues(loc: list[str | int], label: str, conditions: ButtonConditions | None) -> list[Issue]:
    if conditions is None:
        return []
    found: list[Issue] = []
    for low, high in (
        ("min_balance_kopeks", "max_balance_kopeks"),
        ("min_registration_days", "max_registration_days"),
        ("has_subscription_days_left", "max_subscription_days_left"),
    ):
        a, b = getattr(conditions, low), getattr(conditions, high)
        if a is not None and b is not None and a > b:
            found.append(([*loc, "conditions"], "conditions_range", f"{label}: {low} is above {high}"))
    return found


def _button_issues(key: str, button: MenuButtonConfig) -> list[Issue]:
    loc: list[str | int] = ["buttons", key]
    label = f"Button '{key}'"
    found: list[Issue] = []
    if not any(value.strip() for value in button.text.values()):
        found.append(([*loc, "text"], "missing_text", f"{label} has no text"))
    if button.type == "builtin":
        builtin = button.builtin_id or key
        if builtin not in catalogue.BUILTIN:
            found.append(
                ([*loc, "builtin_id"], "unknown_builtin", f"{label}: unknown builtin button '{builtin}'")
            )
    elif button.type == "url" and not button.action.startswith(LINK_PREFIXES):
        found.append(
            (
                [*loc, "action"],
                "invalid_url",
                f"{label}: a url button needs an http://, https:// or tg:// URL",
            )
        )
    elif button.type == "mini_app" and not button.action.startswith("https://"):
        found.append(([*loc, "action"], "invalid_url", f"{label}: a mini_app button needs an https:// URL"))
    elif button.type == "callback" and not 0 < len(button.action.encode()) <= CALLBACK_DATA_BYTES:
        found.append(([*loc, "action"], "invalid_callback", f"{label}: callback_data must be 1 to 64 bytes"))
    if button.webapp_url is not None and not button.webapp_url.startswith("https://"):
        found.append(([*loc, "webapp_url"], "invalid_url", f"{label}: webapp_url must be an https:// URL"))
    return found + _condition_issues(loc, label, button.conditions)


def check(layout: MenuLayout) -> tuple[list[Issue], list[Issue]]:
    """The layout's errors (it may not be saved) and warnings (it works, but look)."""
    errors: list[Issue] = []
    warnings: list[Issue] = []
    row_ids = Counter(row.id for row in layout.rows)
    for row_id, count in row_ids.items():
        if count > 1:
            errors.append((["rows", row_id], "duplicate_row", f"Duplicate row id '{row_id}'"))
    placed: dict[str, list[str]] = {}
    for row in layout.rows:
        if not row.buttons:
            warnings.append((["rows", row.id], "empty_row", f"Row '{row.id}' has no buttons"))
        for key in row.buttons:
            placed.setdefault(key, []).append(row.id)
            if key not in layout.buttons:
                errors.append(
                    (
                        ["rows", row.id, "buttons"],
                        "unknown_button",
                        f"Row '{row.id}': button '{key}' not found",
                    )
                )
        errors.extend(_condition_issues(["rows", row.id], f"Row '{row.id}'", row.conditions))
    for key, rows in placed.items():
        if len(rows) > 1:
            where = ", ".join(f"'{r}'" for r in rows)
            errors.append(
                (["rows"], "button_repeated", f"Button '{key}' is placed more than once (rows {where})")
            )
    if len(placed) > MAX_PLACED_BUTTONS:
        errors.append(
            (
                ["rows"],
                "too_many_buttons",
                f"{len(placed)} buttons placed; the menu holds at most {MAX_PLACED_BUTTONS}",
            )
        )
    for key, button in layout.buttons.items():
        errors.extend(_button_issues(key, button))
        if key not in placed:
            warnings.append((["buttons", key], "unplaced_button", f"Button '{key}' is in no row"))
        if button.open_mode == "direct" and not (button.webapp_url or button.action).startswith("https://"):
            warnings.append(
                (
                    ["buttons", key, "open_mode"],
                    "no_direct_url",
                    f"Button '{key}' opens directly but has no https:// URL; the bot sends its callback",
                )
            )
    disabled = sum(1 for button in layout.buttons.values() if not button.enabled)
    if disabled:
        warnings.append((["buttons"], "disabled_buttons", f"{disabled} buttons are disabled"))
    return errors, warnings


def ensure_valid(layout: MenuLayout) -> None:
    """Refuse (400) a layout with errors, naming every one."""
    errors, _ = check(layout)
    if errors:
        raise LayoutError(400, "Invalid menu layout: " + "; ".join(message for _, _, message in errors))


# --- buttons -------------------------------------------------------------------------------


def _button(layout: MenuLayout, key: str) -> MenuButtonConfig:
    if key not in layout.buttons:
        raise _not_found("Button", key)
    return layout.buttons[key]


CLEARED_BY_NULL = ("icon", "icon_custom_emoji_id", "conditions", "webapp_url", "description", "sort_order")


def update_button(layout: MenuLayout, key: str, changes: dict[str, Any]) -> MenuButtonConfig:
    """Change the fields given (see :class:`ButtonUpdateRequest`). A builtin button keeps its
    action (a Mini App it opens directly is its ``webapp_url``)."""
    button = _button(layout, key)
    values = button.model_dump()
    for name, value in changes.items():
        if value is None and name not in CLEARED_BY_NULL:
            continue
        if name == "action" and button.type == "builtin" and value != button.action:
            raise LayoutError(
                400,
                f"Builtin button '{key}' keeps its action; "
                "set open_mode 'direct' and webapp_url to open a Mini App",
            )
        values[name] = value
    if "text" in changes and changes["text"] is not None and changes.get("dynamic_text") is None:
        values["dynamic_text"] = values["dynamic_text"] or has_placeholders(values["text"])
    updated = MenuButtonConfig.model_validate(values)
    layout.buttons[key] = updated
    return updated


def add_button(layout: MenuLayout, request: AddCustomButtonRequest) -> MenuButtonConfig:
    """A custom button (url, mini_app, callback), appended to ``row_id`` when given."""
    if request.type == "builtin":
        raise LayoutError(400, "Only url, mini_app and callback buttons can be added")
    if request.id in layout.buttons:
        raise LayoutError(409, f"Button with id '{request.id}' already exists")
    row = _row(layout, request.row_id) if request.row_id is not None else None
    dynamic_text = request.dynamic_text or has_placeholders(request.text)
    button = from_attributes(MenuButtonConfig, request, dynamic_text=dynamic_text)
    layout.buttons[request.id] = button
    if row is not None:
        row.buttons.append(request.id)
    return button


def delete_button(layout: MenuLayout, key: str) -> None:
    """Remove a custom button from the layout and its row; builtin ones are only disabled."""
    if _button(layout, key).type == "builtin":
        raise LayoutError(400, "Cannot delete builtin buttons; disable them instead")
    del layout.buttons[key]
    for row in layout.rows:
        row.buttons = [b for b in row.buttons if b != key]


# --- rows ----------------------------------------------------------------------------------


def _row(layout: MenuLayout, row_id: str) -> MenuRowConfig:
    for row in layout.rows:
        if row.id == row_id:
            return row
    raise _not_found("Row", row_id)


def add_row(layout: MenuLayout, request: AddRowRequest) -> MenuRowConfig:
    if any(row.id == request.id for row in layout.rows):
        raise LayoutError(409, f"Row with id '{request.id}' already exists")
    row = MenuRowConfig.model_validate(request, from_attributes=True)
    position = request.position if request.position is not None else len(layout.rows)
    layout.rows.insert(min(position, len(layout.rows)), row)
    return row


def delete_row(layout: MenuLayout, row_id: str) -> None:
    """Remove a row; its buttons stay defined (in no row)."""
    layout.rows.remove(_row(layout, row_id))


def _no_repeats(ids: list[str], what: str) -> None:
    repeated = sorted(key for key, count in Counter(ids).items() if count > 1)
    if repeated:
        raise LayoutError(400, f"Duplicate {what}: {', '.join(repeated)}")


def reorder_rows(layout: MenuLayout, ordered_ids: list[str]) -> list[MenuRowConfig]:
    """The listed rows first, in that order; the others after them, as they were."""
    _no_repeats(ordered_ids, "row ids")
    listed = [_row(layout, row_id) for row_id in ordered_ids]
    layout.rows = listed + [row for row in layout.rows if row.id not in set(ordered_ids)]
    return layout.rows


def reorder_buttons_in_row(layout: MenuLayout, row_id: str, ordered: list[str]) -> list[str]:
    """The row's buttons in a new order: exactly the buttons it has."""
    row = _row(layout, row_id)
    _no_repeats(ordered, "button ids")
    missing = [b for b in row.buttons if b not in ordered]
    extra = [b for b in ordered if b not in row.buttons]
    if missing or extra:
        parts = ([f"missing: {', '.join(missing)}"] if missing else []) + (
            [f"extra: {', '.join(extra)}"] if extra else []
        )
        raise LayoutError(400, f"Button mismatch: {'; '.join(parts)}")
    row.buttons = list(ordered)
    return row.buttons


# --- moving buttons ------------------------------------------------------------------------


def _placement(layout: MenuLayout, key: str) -> tuple[int, int]:
    for index, row in enumerate(layout.rows):
        if key in row.buttons:
            return index, row.buttons.index(key)
    raise _not_found("Button", key, " in any row")


def _drop_empty_rows(layout: MenuLayout, keep: MenuRowConfig) -> None:
    layout.rows = [row for row in layout.rows if row.buttons or row is keep]


def _moved(layout: MenuLayout, key: str, target: MenuRowConfig) -> tuple[int, str, int]:
    _drop_empty_rows(layout, target)
    return layout.rows.index(target), target.id, target.buttons.index(key)


def move_vertically(layout: MenuLayout, key: str, step: int) -> tuple[int, str, int]:
    """Move a button to the end of the row above (``step`` -1) or below (+1); a row left
    empty is removed. Answers (row index, row id, position) after the move."""
    index, _ = _placement(layout, key)
    if not 0 <= index + step < len(layout.rows):
        raise LayoutError(400, f"Button is already in the {'top' if step < 0 else 'bottom'} row")
    layout.rows[index].buttons.remove(key)
    target = layout.rows[index + step]
    target.buttons.append(key)
    return _moved(layout, key, target)


def move_to_row(layout: MenuLayout, key: str, target_id: str, position: int | None) -> tuple[int, str, int]:
    """Move a button (placed or not) into a row, at ``position`` or at the end."""
    _button(layout, key)
    target = _row(layout, target_id)
    for row in layout.rows:
        if key in row.buttons:
            row.buttons.remove(key)
    at = len(target.buttons) if position is None else min(position, len(target.buttons))
    target.buttons.insert(at, key)
    return _moved(layout, key, target)


def swap(layout: MenuLayout, first: str, second: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Exchange two placed buttons; answers their new (row, position)."""
    if first == second:
        raise LayoutError(400, "Cannot swap a button with itself")
    (r1, p1), (r2, p2) = _placement(layout, first), _placement(layout, second)
    layout.rows[r1].buttons[p1], layout.rows[r2].buttons[p2] = second, first
    return (r2, p2), (r1, p1)


# --- import --------------------------------------------------------------------------------


def merged(current: MenuLayout, incoming: MenuLayout) -> tuple[MenuLayout, int, int, list[str]]:
    """``current`` with the rows and buttons of ``incoming`` it lacks; answers the layout, the
    rows and buttons added, and a warning for each one skipped."""
    result = current.model_copy(deep=True)
    warnings: list[str] = []
    added_buttons = 0
    for key, button in incoming.buttons.items():
        if key in result.buttons:
            warnings.append(f"Button '{key}' already exists, skipped")
        else:
            result.buttons[key] = button
            added_buttons += 1
    added_rows = 0
    existing = {row.id for row in result.rows}
    for row in incoming.rows:
        if row.id in existing:
            warnings.append(f"Row '{row.id}' already exists, skipped")
        else:
            result.rows.append(row)
            added_rows += 1
    return result, added_rows, added_buttons, warnings
