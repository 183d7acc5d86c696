//! Units' part of `neardup._core`: `UnitJoiner` (`rust/units.rs`), rows joined into units
//! batch by batch, and `UNIT_SEPARATOR`.

use super::{contiguous, run, Texts};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

/// Arrow-style texts: (UTF-8 bytes, int64 offsets).
type TextBuffers<'py> = (Bound<'py, PyArray1<u8>>, Bound<'py, PyArray1<i64>>);

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<UnitJoiner>()?;
    m.add("UNIT_SEPARATOR", crate::units::UNIT_SEPARATOR)?;
    Ok(())
}

/// Rows joined into units: `add(texts)` with the next rows, in order, gives the units they
/// complete, in unit order.
#[pyclass(module = "neardup._core")]
struct UnitJoiner {
    inner: crate::units::UnitJoiner,
}

#[pymethods]
impl UnitJoiner {
    /// A joiner of `units` units; `of_row` int64[n]: the unit of each row.
    #[new]
    fn new(of_row: PyReadonlyArray1<'_, i64>, units: usize) -> PyResult<Self> {
        let of_row = contiguous(&of_row, "of_row")?;
        Ok(UnitJoiner {
            inner: crate::units::UnitJoiner::new(of_row, units)?,
        })
    }

    /// Reads the next rows' `texts` (list of str or (data, offsets)); the units they complete
    /// as (data uint8[], offsets int64[k + 1]): their texts, rows joined by `UNIT_SEPARATOR`.
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<TextBuffers<'py>> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let inner = &mut self.inner;
        let (data, offsets) = run(py, || inner.add(&strs))?;
        Ok((data.into_pyarray(py), offsets.into_pyarray(py)))
    }

    /// Units not given yet (0 once every row has been read).
    #[getter]
    fn units_left(&self) -> usize {
        self.inner.units_left()
    }
}
